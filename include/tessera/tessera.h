// Tessera's public C++ API in one include.
#pragma once

#include "tessera/errors.h"
#include "tessera/options.h"
#include "tessera/providers.h"
#include "tessera/session.h"
#include "tessera/tensor.h"
#include "tessera/version.h"
