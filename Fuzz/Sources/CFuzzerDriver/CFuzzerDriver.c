// Declarations only: see include/CFuzzerDriver.h. SwiftPM needs one source file in a C target.
#include "CFuzzerDriver.h"
