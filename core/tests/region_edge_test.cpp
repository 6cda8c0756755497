// Where a grid's surface is closed by the edge of its baked region: none for a shape
// baked whole, formula or mesh; many when a region cuts the shape.
#include "distgrid/region_edge.hpp"

#include <gtest/gtest.h>

#include "distgrid/bake.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_parts.hpp"

namespace distgrid {
namespace {

TEST(RegionEdge, NoneWhereTheWholeShapeWasBaked) {
  for (const DefaultPart& part : default_parts()) {
    BakeSettings settings;
    settings.h = 0.05;
    EXPECT_EQ(region_edge_crossings(bake(compile_field<float>(part.spec), settings)), 0u) << part.name;
  }
  MeshBakeSettings mesh_settings;
  mesh_settings.h = 1.0 / 16;
  const MeshPart torus = mesh_part("torus_mesh");
  EXPECT_EQ(region_edge_crossings(bake_mesh<double>(prepare_mesh(torus.mesh, torus.name), mesh_settings)), 0u);
}

TEST(RegionEdge, CountsTheEdgesWhereARegionCutsTheShape) {
  BakeSettings settings;
  settings.h = 1.0 / 16;
  // A region wholly inside the sphere: its six faces cut the shape.
  settings.region = Box{{-0.5, -0.5, -0.5}, {0.5, 0.5, 0.5}};
  const Grid<float> cube = bake(compile_field<float>(default_part("sphere").spec), settings);
  EXPECT_GT(region_edge_crossings(cube), 64u);
  // A region holding the top half of the sphere only: cut along one plane.
  settings.region = Box{{-1.5, -1.5, 0.25}, {1.5, 1.5, 1.5}};
  const Grid<float> cap = bake(compile_field<float>(default_part("sphere").spec), settings);
  const std::size_t cut = region_edge_crossings(cap);
  EXPECT_GT(cut, 0u);
  // The cut lies across z near the region's bottom only: every crossing is counted
  // once, and the disc at z = 0.25 holds fewer nodes than the region's full face.
  EXPECT_LT(cut, 48u * 48);
}

}  // namespace
}  // namespace distgrid
