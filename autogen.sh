#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Regenerate the build system from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
autoreconf --install --force
