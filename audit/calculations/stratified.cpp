#include "stratified.hpp"

#include <algorithm>

#include "part_inputs.hpp"

namespace distgrid::audit::calcs {

nlohmann::json maxima_json(const ErrorMaxima& max, const CalculationResult& result) {
  nlohmann::json out = {{"error", finite_or_null(max.error)}};
  if (result.arithmetic) out["arithmetic"] = finite_or_null(max.arithmetic);
  if (result.storage_error) out["storage"] = finite_or_null(max.storage);
  if (result.method) out["method"] = finite_or_null(max.method);
  return out;
}

namespace {

BakedPart baked_part(RunContext& context, PartSubject& part, Placement where, bool with_mesh_doubles) {
  const RunSettings& settings = context.settings();
  BakedPart baked;
  baked.name = part.part().name;
  baked.part = &part;
  baked.exact = &part.shape(where);
  for (Storage storage : settings.storages)
    with_storage(storage, [&]<class S>() {
      const Grid<S>& grid = part.grid<S>(where);
      baked.storages.emplace_back(StoredGrid<S>{part.is_formula() ? &part.field<FieldScalarOf<S>>(where) : nullptr,
                                                &grid, reference::StoredNodes<S>(grid)});
      baked.box = part.draw_box<S>(where);
    });
  if (!part.is_formula() && with_mesh_doubles) baked.mesh_doubles.emplace(part.grid<double>(where));
  return baked;
}

}  // namespace

std::vector<PartUnit<BakedPart>> baked_part_units(RunContext& context, bool with_mesh_doubles) {
  std::vector<PartUnit<BakedPart>> units;
  for (std::size_t n = 0; n < context.part_count(); ++n) {
    PartSubject* part = &context.part(n);
    if (part->mesh()) context.mark_untrusted(*part->mesh());
    units.push_back({part->part().name, [&context, part, with_mesh_doubles](Placement where) {
                       return baked_part(context, *part, where, with_mesh_doubles);
                     }});
  }
  return units;
}

void check_recorded_input(const ReplayRequest& request, const InputValues& values) {
  bool same = values.size() == request.input.values.size();
  for (const auto& value : values)
    same = same && std::find(request.input.values.begin(), request.input.values.end(), value) !=
                       request.input.values.end();
  if (!same)
    throw Error(ErrorCode::badarg, "replay: the recorded input is not the one generator " + request.input.generator +
                                       " draws at index " + std::to_string(request.input.index));
}

std::size_t storage_index(const RunContext& context, Storage storage) {
  const std::vector<Storage>& storages = context.settings().storages;
  const auto at = std::find(storages.begin(), storages.end(), storage);
  if (at == storages.end()) throw Error(ErrorCode::badarg, "replay: the run does not hold the requested storage");
  return static_cast<std::size_t>(at - storages.begin());
}

std::vector<ReplayValue> replay_errors(const StorageErrors& errors) {
  const auto value = [](const char* name, const ErrorValue& e) {
    return ReplayValue{name, hex_float(e.result), hex_float(e.reference)};
  };
  std::vector<ReplayValue> values{value("error", errors.error)};
  if (errors.arithmetic) values.push_back(value("arithmetic", *errors.arithmetic));
  if (errors.storage) values.push_back(value("storage", *errors.storage));
  if (errors.method) values.push_back(value("method", *errors.method));
  return values;
}

}  // namespace distgrid::audit::calcs
