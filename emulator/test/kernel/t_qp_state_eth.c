#include "t_qp_state.c"
