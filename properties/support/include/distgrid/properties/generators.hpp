#pragma once
// RapidCheck generators shared by the property tests (no tests here): numbers on
// dyadic lattices and special values, shapes as formula specs, triangles and
// closed meshes, grids given by their node values.
#include "distgrid/properties/grids.hpp"
#include "distgrid/properties/lattice.hpp"
#include "distgrid/properties/meshes.hpp"
#include "distgrid/properties/shapes.hpp"
