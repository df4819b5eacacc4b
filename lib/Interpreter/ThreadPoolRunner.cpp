// Placeholder: filled in by the interpreter-core work.
#include "Interpreter/Kernel.h"
