#ifndef SQLTK_FUZZER_DRIVER_H
#define SQLTK_FUZZER_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's entry for programs that have their own main: runs the fuzzer with the command line and the target.
   SwiftPM links every executable with `main` defined as `<Target>_main`, so each target defines that function
   and hands over to libFuzzer here. https://llvm.org/docs/LibFuzzer.html#using-libfuzzer-as-a-library */
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*target)(const uint8_t *data, size_t size));

#endif
