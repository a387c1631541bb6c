#include "t_rdmacm_tos.c"
