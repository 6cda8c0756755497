// The one instantiation of the compiled formula's kernels in high precision:
// Field<S>::eval<HighPrecision> everywhere in the audit and the properties links
// to these, so a change to a kernel (field_kernels.hpp) recompiles this file and
// core's field.cpp alone.
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/field_kernels.hpp"

namespace distgrid {

using audit::HighPrecision;

template HighPrecision Field<float>::eval_node<HighPrecision>(detail::NodeId, const HighPrecision&, const HighPrecision&,
                                                              const HighPrecision&) const;
template HighPrecision Field<double>::eval_node<HighPrecision>(detail::NodeId, const HighPrecision&,
                                                               const HighPrecision&, const HighPrecision&) const;

}  // namespace distgrid
