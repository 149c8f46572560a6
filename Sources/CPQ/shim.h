#ifndef PARLEY_CPQ_SHIM_H
#define PARLEY_CPQ_SHIM_H
#include <libpq-fe.h>
#endif
