// The rule groups of the contract validator, one file each (check_*.cpp); check.cpp runs them.
#pragma once

#include "opdev/contract/check.h"

namespace opdev::contract {

void CheckDesignStructure(const OpDir& od, const CheckOptions& opts, Diagnostics* diags);
void CheckVectorSelection(const OpDir& od, const CheckOptions& opts, Diagnostics* diags);
void CheckDesignMemory(const OpDir& od, const CheckOptions& opts, Diagnostics* diags);
void CheckCubeModules(const OpDir& od, const CheckOptions& opts, Diagnostics* diags);
void CheckBindings(const OpDir& od, const CheckOptions& opts, Diagnostics* diags);
void CheckSelections(const OpDir& od, const CheckOptions& opts, Diagnostics* diags);
void CheckModuleInterfaces(const OpDir& od, const CheckOptions& opts, Diagnostics* diags);

// Adds an error with a DESIGN section label.
Diagnostic& AddError(Diagnostics* diags, const char* code, std::string_view category,
                     const std::string& file, int line, const std::string& section,
                     std::string message, std::string evidence = {});
Diagnostic& AddWarning(Diagnostics* diags, const char* code, std::string_view category,
                       const std::string& file, int line, const std::string& section,
                       std::string message, std::string evidence = {});

}  // namespace opdev::contract
