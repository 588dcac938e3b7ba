// The version of the library an application runs with (which may be newer
// than the headers it was built against, within one soname).
#pragma once

#include "tessera/export.h"

namespace tessera::v1 {

// "0.1.0"
TESSERA_API const char* Version();

}  // namespace tessera::v1
