// `pyramarch iso`: fields, raw volumes, GLSL field functions and particle
// files (see iso_command.cpp and samples/pyramarch/README.md).
#pragma once

#include "tool_cli.h"

// Runs the command; returns the exit code (errors are one line on stderr).
int runIso(const sample::IsoOptions& options);
