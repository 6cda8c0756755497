#include "distgrid/audit/run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <string>
#include <system_error>
#include <thread>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/claim_gate.hpp"
#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/comparison.hpp"
#include "distgrid/audit/gate.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"

namespace distgrid::audit {

struct PartSubject::Baked {
  nlohmann::json spec;
  std::optional<Field<float>> field_float;
  std::optional<Field<double>> field_double;
  std::optional<Grid<float>> grid_float;
  std::optional<Grid<double>> grid_double;
};

namespace {

template <class S>
std::optional<Field<S>>& field_slot(auto& baked) {
  if constexpr (sizeof(S) == 4) return baked.field_float;
  else return baked.field_double;
}

template <class S>
std::optional<Grid<S>>& grid_slot(auto& baked) {
  if constexpr (sizeof(S) == 4) return baked.grid_float;
  else return baked.grid_double;
}

}  // namespace

PartSubject::PartSubject(const DefaultPart& part, double h, double band, unsigned threads)
    : part_(&part), h_(h), band_(band), threads_(threads) {
  baked_[0] = std::make_unique<Baked>();
  baked_[0]->spec = part.spec;
  baked_[1] = std::make_unique<Baked>();
  const std::array<double, 3> by = far_offset();
  baked_[1]->spec = {{"type", "translate"}, {"by", {by[0], by[1], by[2]}}, {"shape", part.spec}};
}

PartSubject::~PartSubject() = default;
PartSubject::PartSubject(PartSubject&&) noexcept = default;

std::array<double, 3> PartSubject::far_offset() const noexcept {
  return {kFarOffsetVoxels[0] * h_, kFarOffsetVoxels[1] * h_, kFarOffsetVoxels[2] * h_};
}

template <class S>
const Field<S>& PartSubject::field(Placement where) {
  Baked& b = *baked_[static_cast<int>(where)];
  auto& slot = field_slot<S>(b);
  if (!slot) slot.emplace(compile_field<S>(b.spec));
  return *slot;
}

template <class S>
const Grid<S>& PartSubject::grid(Placement where) {
  Baked& b = *baked_[static_cast<int>(where)];
  auto& slot = grid_slot<S>(b);
  if (!slot) {
    BakeSettings settings;
    settings.h = h_;
    settings.band = band_;
    settings.threads = threads_;
    slot.emplace(bake(field<S>(where), settings));
  }
  return *slot;
}

template const Field<float>& PartSubject::field<float>(Placement);
template const Field<double>& PartSubject::field<double>(Placement);
template const Grid<float>& PartSubject::grid<float>(Placement);
template const Grid<double>& PartSubject::grid<double>(Placement);

RunContext::RunContext(const RunSettings& settings, Progress& progress)
    : settings_(settings),
      progress_(progress),
      threads_(settings.threads > 0 ? settings.threads : std::max(1u, std::thread::hardware_concurrency())) {
  if (settings.parts.empty()) {
    for (const DefaultPart& p : default_parts()) parts_.emplace_back(p, settings.h, settings.band, threads_);
  } else {
    for (const std::string& name : settings.parts)
      parts_.emplace_back(default_part(name), settings.h, settings.band, threads_);
  }
}

bool RunContext::wants(Storage s) const noexcept {
  return std::find(settings_.storages.begin(), settings_.storages.end(), s) != settings_.storages.end();
}

namespace {

void check_settings(const RunSettings& s) {
  if (!std::isfinite(s.h) || !(s.h > 0)) throw Error(ErrorCode::badarg, "--h must be finite and > 0");
  if (!std::isfinite(s.band) || !(s.band >= 1)) throw Error(ErrorCode::badarg, "--band must be finite and >= 1");
  if (s.seed >= (std::uint64_t{1} << 53)) throw Error(ErrorCode::badarg, "--seed must be below 2^53");
  if (s.storages.empty()) throw Error(ErrorCode::badarg, "no storage selected");
  for (const std::string& id : s.calculations)
    if (!find_calculation(id)) throw Error(ErrorCode::badarg, "unknown calculation \"" + id + "\"");
  for (const std::string& name : s.parts) (void)default_part(name);  // throws badarg naming the known parts
}

nlohmann::json settings_json(const RunSettings& s, const RunContext& context) {
  nlohmann::json storages = nlohmann::json::array(), parts = nlohmann::json::array();
  for (Storage st : s.storages) storages.push_back(storage_name(st));
  for (std::size_t n = 0; n < context.part_count(); ++n)
    parts.push_back(context.part(n).part().name);
  const auto far = kFarOffsetVoxels;
  return {{"storage", storages},
          {"parts", parts},
          {"h", s.h},
          {"h_hex", hex_float(s.h)},
          {"band", s.band},
          {"seed", s.seed},
          {"inputs_per_generator_and_part", s.inputs},
          {"threads", context.threads()},
          {"far_offset_voxels", {far[0], far[1], far[2]}},
          {"reference",
           {{"type", "Boost.Multiprecision mpfr_float_backend<40> (MPFR)"}, {"bits", kReferenceBits}}},
          {"units",
           {{"h", "absolute error / h"},
            {"ulps",
             "absolute error / ulp of the reference as a double (the gap to the next larger double); "
             "for distances the reference's magnitude is raised to band*h first, so results near zero "
             "count in ulps of band*h; volumes have no floor"},
            {"bits", "log2(1 + ulps): bits of a double's 53 spoiled by the error"},
            {"relative", "absolute error / |reference|"},
            {"p99", "nearest rank: the ceil(0.99 n)-th smallest value"}}},
          {"measured_class_rule",
           "from the error's max in ulps: exact when 0 (and no mismatch); 64-bit up to 1024 ulps (10 "
           "bits); 32-bit in part above (a float step costs about 2^28 ulps on a value, above 2^13 on a "
           "volume sum); inexact when a calculation declared exact gave a wrong answer"}};
}

}  // namespace

nlohmann::json run_audit(const RunSettings& settings, Progress& progress) {
  check_settings(settings);
  const std::vector<Budget> budgets = load_budgets(settings.budgets_path);
  const auto started = std::chrono::steady_clock::now();
  RunContext context(settings, progress);

  nlohmann::json entries = nlohmann::json::array();
  nlohmann::json counts = nlohmann::json::object();
  bool all_pass = true;
  for (const Calculation& calculation : calculations()) {
    if (!settings.calculations.empty() &&
        std::find(settings.calculations.begin(), settings.calculations.end(), calculation.id) ==
            settings.calculations.end())
      continue;
    const std::vector<CalculationResult> results = calculation.run(context);
    for (const CalculationResult& result : results) {
      nlohmann::json entry = calculation_json(calculation, result, settings.source_dir);
      const std::vector<GateCheck> checks = check_entry(entry, budgets);
      entry["gate"] = gate_json(checks);
      all_pass = all_pass && entry["gate"]["status"] == "pass";
      entries.push_back(std::move(entry));
    }
    if (!results.empty()) {
      nlohmann::json& c = counts[std::string(calculation.id)];
      for (const StratumCount& s : results.front().strata) c[s.name] = s.count;
    }
  }
  // Claims, the refinement series and the float-vs-double comparison. The
  // comparison needs both storages and every calculation; a claim runs when one
  // of its calculations is selected.
  const bool quick = settings.inputs < kQuickInputsBelow;
  const bool compare = context.wants(Storage::float32) && context.wants(Storage::float64) &&
                       settings.calculations.empty();
  bool any_claim = false, curved_claim = false;
  for (const Claim& claim : claims()) {
    const bool selected = claim_selected(claim, settings.calculations);
    any_claim = any_claim || selected;
    curved_claim = curved_claim || (selected && claim.id == "volume.curved_second_order");
  }
  Refinement refinement;
  if (compare || curved_claim) refinement = run_refinement(context, default_refinement_series(quick), quick);
  nlohmann::json claims_section;
  if (any_claim) {
    ClaimContext claim_context{context, refinement, quick};
    claims_section = run_claims(claim_context);
    const nlohmann::json partial = {{"claims", claims_section}};
    all_pass = all_pass && check_claims(partial, load_claim_gates(settings.budgets_path)).empty();
  }

  nlohmann::json comparison_section;
  if (compare) comparison_section = comparison_json(context, entries, refinement);

  nlohmann::json settings_section = settings_json(settings, context);
  settings_section["inputs"] = counts;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // The budgets file relative to the repository when it lies inside it, so a
  // report names no machine path for the checked-in gates.
  std::string budgets_name = settings.budgets_path;
  {
    std::error_code ec;
    const auto relative = std::filesystem::relative(settings.budgets_path, settings.source_dir, ec);
    if (!ec && !relative.empty() && relative.native().rfind("..", 0) != 0) budgets_name = relative.generic_string();
  }
  nlohmann::json report = {{"schema", kReportSchema},
                           {"tool", tool_json()},
                           {"build", build_json()},
                           {"settings", settings_section},
                           {"calculations", entries},
                           {"gate", {{"budgets", budgets_name}, {"status", all_pass ? "pass" : "fail"}}},
                           {"run_seconds", seconds}};
  if (any_claim) report["claims"] = claims_section;
  if (refinement.ran) report["refinement"] = refinement_json(refinement);
  if (compare) report["comparison"] = comparison_section;
  check_all_finite(report);
  return report;
}

}  // namespace distgrid::audit
