/* halox: halo exchange for distributed stencil computations. One include for the whole API. */
#ifndef HALOX_H
#define HALOX_H

#define HALOX_VERSION "0.1.0"

#include "halox/backend.h"
#include "halox/config.h"
#include "halox/decomp.h"
#include "halox/field_io.h"
#include "halox/node.h"
#include "halox/plan.h"
#include "halox/reference.h"
#include "halox/report.h"
#include "halox/run.h"
#include "halox/schedule.h"
#include "halox/stencil.h"
#include "halox/timing.h"
#include "halox/transport.h"
#include "halox/types.h"

#endif
