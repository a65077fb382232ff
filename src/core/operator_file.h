/* Checks shared by hx_operator_create and the operator file reader. Private: only src/ includes it. */
#ifndef HALOX_OPERATOR_FILE_H
#define HALOX_OPERATOR_FILE_H

#include "halox/operator.h"

/* 0, or -1 with one line in why naming the fault and its fix. */
int hx_operator_check_term(const hx_term *t, int dim, int ncoef, char *why, size_t n);
int hx_operator_check_desc(const hx_operator_desc *d, char *why, size_t n);

#endif
