#include "t_context.c"
