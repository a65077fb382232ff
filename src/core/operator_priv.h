/* What an hx_operator holds (include/halox/operator.h). Private: only src/ includes it. */
#ifndef HALOX_OPERATOR_PRIV_H
#define HALOX_OPERATOR_PRIV_H

#include "halox/operator.h"

struct hx_operator {
    hx_operator_desc desc;          /* desc.terms points at terms below, desc.name at name */
    hx_term terms[HX_OP_MAX_TERMS];
    char name[64];
    int radius;                     /* largest |offset| over every axis and term */
    int radius_axis[3];             /* per axis */
};

#endif
