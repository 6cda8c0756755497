// Fuzz target for formula specs: JSON parsing and compiling into a Field, then
// the field's box and one evaluation at the origin.
#include "distgrid/field_json.hpp"
#include "fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  distgrid::fuzz::expect_typed_errors_only([&] {
    const distgrid::Field<float> field =
        distgrid::compile_field_text<float>(distgrid::fuzz::as_text(data, size), "fuzz-input");
    (void)field.bounds();
    (void)field.eval<double>(0, 0, 0);
  });
  return 0;
}
