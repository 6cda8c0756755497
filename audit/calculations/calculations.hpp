#pragma once
// The descriptor of each audited calculation, one per file named after its id
// (grid.sample: grid_sample.cpp); registry.cpp lists them in report order.
#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/run.hpp"

namespace distgrid::audit::calcs {

Calculation bake_plan();
Calculation bake_node_values();
Calculation grid_key();
Calculation grid_sample();
Calculation grid_gradient();
Calculation grid_world_box();
Calculation grid_volume();
Calculation mesh_weld();
Calculation mesh_normals();
Calculation mesh_node_distance();
Calculation mesh_closest_point();
Calculation mesh_ray_parity();
Calculation field_density_store();
Calculation field_density_value();
Calculation field_eval();
Calculation mesh_edge_key();
Calculation contour_surface_nets();
Calculation contour_marching_cubes();
Calculation export_stl();
Calculation export_obj();
Calculation export_ply();

}  // namespace distgrid::audit::calcs
