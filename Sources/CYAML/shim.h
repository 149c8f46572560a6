#ifndef PARLEY_CYAML_SHIM_H
#define PARLEY_CYAML_SHIM_H
#include <yaml.h>
#endif
