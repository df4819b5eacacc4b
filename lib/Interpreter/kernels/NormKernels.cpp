// Placeholder: filled in by the NN-kernels work.
#include "Interpreter/Kernel.h"
