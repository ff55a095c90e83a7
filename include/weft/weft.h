// weft: an MPI-like communication library for tensors. Include this header.
#pragma once

#include "weft/collectives.h"
#include "weft/cuda.h"
#include "weft/error.h"
#include "weft/group.h"
#include "weft/multigpu.h"
#include "weft/p2p.h"
#include "weft/process_group.h"
#include "weft/request.h"
#include "weft/request_sets.h"
#include "weft/store.h"
#include "weft/tensor.h"
#include "weft/timeout.h"
#include "weft/version.h"
