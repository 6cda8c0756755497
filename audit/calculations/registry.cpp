// The registry: every audited calculation, in report order.
#include "calculations.hpp"

namespace distgrid::audit {

const std::vector<Calculation>& calculations() {
  static const std::vector<Calculation> list{
      calcs::bake_plan(),
      calcs::bake_node_values(),
      calcs::grid_key(),
      calcs::grid_sample(),
      calcs::grid_gradient(),
      calcs::grid_world_box(),
      calcs::grid_volume(),
      calcs::mesh_weld(),
      calcs::mesh_normals(),
      calcs::mesh_node_distance(),
      calcs::mesh_closest_point(),
      calcs::mesh_ray_parity(),
      calcs::field_density_store(),
      calcs::field_density_value(),
      calcs::field_eval(),
      calcs::mesh_edge_key(),
      calcs::contour_surface_nets(),
      calcs::contour_marching_cubes(),
      calcs::export_stl(),
      calcs::export_obj(),
      calcs::export_ply(),
  };
  return list;
}

}  // namespace distgrid::audit
