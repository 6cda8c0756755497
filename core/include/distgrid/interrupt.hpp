#pragma once
// Stopping long runs on Ctrl-C: the tools install handlers for SIGINT and
// SIGTERM that only set a flag; loops over bricks and inputs check it between
// chunks and throw Error(interrupted), so no output file is written and the
// temporary files of writes in progress are removed. A library user who never
// installs the handlers keeps the default signal behaviour.
namespace distgrid {

/// Installs the flag-setting handlers (idempotent). A second signal while the
/// first is being honoured ends the process at once with the default action.
void install_interrupt_handlers() noexcept;

/// True once SIGINT or SIGTERM arrived after install_interrupt_handlers().
bool interrupt_requested() noexcept;

/// Throws Error(interrupted) when interrupt_requested().
void throw_if_interrupted();

}  // namespace distgrid
