#include "t_rdmacm.c"
