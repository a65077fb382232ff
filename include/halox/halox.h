/* halox: halo exchange for distributed stencil computations. One include for the whole API;
 * docs/api.md walks through it. */
#ifndef HALOX_H
#define HALOX_H

#define HALOX_VERSION "0.2.0"

#include "halox/types.h"
#include "halox/stencil.h"
#include "halox/operator.h"
#include "halox/decomp.h"
#include "halox/plan.h"
#include "halox/context.h"
#include "halox/layout.h"
#include "halox/exchange.h"
#include "halox/sweeper.h"
#include "halox/reference.h"
#include "halox/custom.h"

#endif
