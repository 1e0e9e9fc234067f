/* SwiftPM builds a C target from at least one source file; the target's content is its header. */
#include "sqltk_system_shim.h"
