#pragma once
// Entry points of the audited calculations, one file each, named after the id.
// Only calculation.cpp (the registry) calls them.
#include <vector>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/run.hpp"

namespace distgrid::audit::runs {

std::vector<CalculationResult> run_bake_plan(RunContext& context);
std::vector<ReplayValue> replay_bake_plan(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_bake_node_values(RunContext& context);
std::vector<ReplayValue> replay_bake_node_values(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_grid_key(RunContext& context);
std::vector<ReplayValue> replay_grid_key(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_grid_sample(RunContext& context);
std::vector<ReplayValue> replay_grid_sample(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_grid_volume(RunContext& context);
std::vector<ReplayValue> replay_grid_volume(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_contour_surface_nets(RunContext& context);
std::vector<ReplayValue> replay_contour_surface_nets(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_contour_marching_cubes(RunContext& context);
std::vector<ReplayValue> replay_contour_marching_cubes(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_export_stl(RunContext& context);
std::vector<ReplayValue> replay_export_stl(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_export_obj(RunContext& context);
std::vector<ReplayValue> replay_export_obj(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_export_ply(RunContext& context);
std::vector<ReplayValue> replay_export_ply(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_mesh_weld(RunContext& context);
std::vector<ReplayValue> replay_mesh_weld(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_mesh_normals(RunContext& context);
std::vector<ReplayValue> replay_mesh_normals(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_mesh_node_distance(RunContext& context);
std::vector<ReplayValue> replay_mesh_node_distance(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_mesh_closest_point(RunContext& context);
std::vector<ReplayValue> replay_mesh_closest_point(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_mesh_ray_parity(RunContext& context);
std::vector<ReplayValue> replay_mesh_ray_parity(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_mesh_edge_key(RunContext& context);
std::vector<ReplayValue> replay_mesh_edge_key(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_grid_gradient(RunContext& context);
std::vector<ReplayValue> replay_grid_gradient(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_grid_world_box(RunContext& context);
std::vector<ReplayValue> replay_grid_world_box(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_grid_volume(RunContext& context);
std::vector<CalculationResult> run_field_density_store(RunContext& context);
std::vector<ReplayValue> replay_field_density_store(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_field_density_value(RunContext& context);
std::vector<ReplayValue> replay_field_density_value(RunContext& context, const ReplayRequest& request);
std::vector<CalculationResult> run_field_eval(RunContext& context);
std::vector<ReplayValue> replay_field_eval(RunContext& context, const ReplayRequest& request);

}  // namespace distgrid::audit::runs
