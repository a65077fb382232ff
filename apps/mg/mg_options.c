/* `halox mg`'s options: one table entry and its --help text per option (the CLI's option-table
 * engine, options.h), and the names of their choices. */
#include "mg_app.h"
#include "options.h"

/* the names the report prints too (mg_report.c) */
const hx_opt_choice mg_bottoms[] = {
    {"auto", MG_BOTTOM_AUTO}, {"direct", MG_BOTTOM_DIRECT}, {"cg", MG_BOTTOM_CG}, {"smooth", MG_BOTTOM_SMOOTH}, {NULL, 0}};
const hx_opt_choice mg_coarse_solves[] = {{"all", 1}, {"root", 0}, {NULL, 0}};
const hx_opt_choice mg_smoothers[] = {{"gsrb", MG_SMOOTHER_GSRB}, {"cheby", MG_SMOOTHER_CHEBY}, {NULL, 0}};
const hx_opt_choice mg_fuses[] = {{"auto", MG_FUSE_AUTO}, {"on", MG_FUSE_ON}, {"off", MG_FUSE_OFF}, {NULL, 0}};
const hx_opt_choice mg_problems[] = {{"poisson", 0}, {"helmholtz", 1}, {NULL, 0}};
static const hx_opt_choice backends[] = {
    {"auto", HX_BACKEND_AUTO}, {"cpu", HX_BACKEND_CPU}, {"cuda", HX_BACKEND_CUDA}, {NULL, 0}};
static const hx_opt_choice patterns[] = {{"staged", HX_STAGED}, {"direct", HX_DIRECT}, {NULL, 0}};
static const hx_opt_choice schedules[] = {
    {"cycle", HX_SCHEDULE_CYCLE}, {"fused", HX_SCHEDULE_FUSED}, {"persistent", HX_SCHEDULE_PERSISTENT}, {NULL, 0}};
static const hx_opt_choice formats[] = {
    {"table", MG_FORMAT_TABLE}, {"csv", MG_FORMAT_CSV}, {"json", MG_FORMAT_JSON}, {NULL, 0}};

#define F(member) HX_OPT_FIELD(mg_config, member)
#define AT(member) HX_OPT_AT(mg_config, member)
static const hx_option mg_options[] = {
    {.name = "size", .type = HX_OPT_STRING, .meta = "N|NXxNYxNZ", .def = "64", .group = "problem",
     .what = "the global grid",
     .help = "the global grid, each number from 4 to 16384: N^3 cells on the unit cube (h = 1/N), or NX x NY x NZ "
             "cubic cells of width h = 1/min(NX, NY, NZ) on [0, NX h] x [0, NY h] x [0, NZ h]; the solves run at "
             "the grid, its half and its quarter (the report's size is NX, its shape NXxNYxNZ)",
     F(size), .seen_at = AT(size_seen)},
    {.name = "size-per-rank", .type = HX_OPT_INT, .meta = "N", .lo = 4, .hi = 1 << 14, .def_text = "off",
     .group = "problem", .what = "cells per axis of each rank's block",
     .help = "weak scaling: N^3 cells per rank, the global grid N times the process grid per axis (--grid, or the "
             "most cubic grid for the rank count); instead of --size",
     F(size_per_rank)},
    {.name = "problem", .type = HX_OPT_CHOICE, .choices = mg_problems, .def = "poisson", .group = "problem",
     .help = "-lap(u) = f, or the Helmholtz form a alpha u - b div(beta grad u) = f with a = b = 1, "
             "alpha = 1 + xyz in cells, beta = 1 + sin(2 pi x) sin(2 pi y) sin(2 pi z) / 4 on faces (x, y, z "
             "normalised to [0, 1] on a non-cubic grid)",
     F(problem)},
    {.name = "coarse", .type = HX_OPT_INT, .meta = "C", .lo = 1, .hi = 1 << 14, .def = "2", .group = "problem",
     .what = "the coarsest global grid",
     .help = "stop coarsening before the global grid's smallest extent drops below C cells (coarsening also "
             "stops before a rank's block drops below 2 cells or stops halving evenly)",
     F(coarse)},
    {.name = "agglomerate", .type = HX_OPT_INT, .meta = "CELLS", .lo = 0, .hi = 2147483647, .def = "0",
     .def_text = "auto: 4096 with several ranks where the grid allows, else 0", .group = "problem",
     .what = "a global cell count (0: off)",
     .help = "the first level of at most CELLS cells (and every coarser one) is solved on rank 0 alone, on the "
             "CPU: its right-hand side is gathered there and the correction scattered back; the hierarchy is then "
             "the one-rank hierarchy (down to --coarse) at every rank count. 0: off (every level on every rank). "
             "Not given: with more than one rank, 4096 (16^3) when the 4h grid is still above it and every rank's "
             "block halves down to it, else off; at one rank off (the same hierarchy and bits either way, and a GPU "
             "ran the small levels faster than the CPU did); the same on every backend, so that CPU and GPU runs of "
             "the same options give the same bits",
     F(agglomerate), .seen_at = AT(agglomerate_seen)},
    {.name = "agglomerate-ranks", .type = HX_OPT_INT, .meta = "CELLS", .lo = 0, .hi = 2147483647, .def = "0",
     .group = "problem", .what = "a global cell count (0: off)",
     .help = "a first step before --agglomerate (which it must exceed), as in NVIDIA's HPGMG: from the first level "
             "of at most CELLS cells the levels run on an eighth of the ranks (the process grid halved along each "
             "even axis), on the job's backend and transport, until --agglomerate moves the coarser ones to rank 0's "
             "CPU. 0: off (one step)",
     F(agglomerate_ranks)},
    {.name = "coarse-solve", .type = HX_OPT_CHOICE, .choices = mg_coarse_solves, .def = "root", .group = "problem",
     .help = "who solves the levels --agglomerate moves to the CPU: root (rank 0 alone after MPI_Gatherv, then "
             "MPI_Scatterv, as HPGMG does) or all (every rank gathers the level's "
             "right-hand side with MPI_Allgatherv and solves the same coarse levels on its own CPU, so no "
             "correction is scattered back); the same bits either way",
     F(coarse_solve)},
    {.name = "smoother", .type = HX_OPT_CHOICE, .choices = mg_smoothers, .def = "gsrb", .group = "solver",
     .help = "red-black Gauss-Seidel, or Chebyshev polynomials of the Jacobi-preconditioned operator", F(smoother)},
    {.name = "ghosts", .type = HX_OPT_INT, .meta = "G", .lo = 1, .hi = MG_MAX_GHOSTS, .def = "5",
     .def_text = "2 nu + 1 (gsrb), nu x cheby-degree + 1 (cheby), at most 9", .group = "solver",
     .what = "a number of ghost layers",
     .help = "ghost layers of the fields (at most a level's block): one exchange of G layers serves G smoother "
             "steps (red-black colours or Chebyshev steps), each also updating the ghost layers facing other "
             "ranks that the next ones read, as those ranks do, so the fields are bit-identical to G = 1's (an "
             "exchange before each step); the default covers a level's pre-smoothing and residual; plus one "
             "exchange of f per V-cycle visit",
     F(ghosts), .seen_at = AT(ghosts_seen)},
    {.name = "cheby-degree", .type = HX_OPT_INT, .meta = "K", .lo = 1, .hi = MG_MAX_DEGREE, .def = "4",
     .group = "solver", .what = "a Chebyshev degree",
     .help = "steps (exchanges and operator applications) of one Chebyshev smoothing", F(cheby_degree)},
    {.name = "nu", .type = HX_OPT_INT, .meta = "S", .lo = 1, .hi = 64, .def = "2", .def_text = "2 (gsrb), 1 (cheby)",
     .group = "solver", .what = "a number of smoother applications",
     .help = "smoother applications (red-black sweeps, or Chebyshev polynomials) before and after each "
             "coarse-grid correction",
     F(nu), .seen_at = AT(nu_seen)},
    {.name = "bottom", .type = HX_OPT_CHOICE, .choices = mg_bottoms, .def = "auto", .group = "solver",
     .help = "coarsest-level solver: direct (the coarsest operator's Cholesky factor, made once; the coarsest level "
             "on one rank, as with agglomeration, and at most 1024 cells), conjugate gradients to a relative residual "
             "of 1e-12, or --bottom-sweeps smoother applications (no global reduction); auto: direct where it can, "
             "else cg",
     F(bottom)},
    {.name = "bottom-sweeps", .type = HX_OPT_INT, .meta = "S", .lo = 1, .hi = 100000, .def = "50",
     .group = "solver", .what = "a number of smoother applications", .help = "applications of --bottom smooth",
     F(bottom_sweeps)},
    {.name = "tol", .type = HX_OPT_STRING, .meta = "TOL", .def = "1e-10", .group = "solver",
     .what = "a relative residual norm", .help = "V-cycles until ||f - A u||_2 / ||f||_2 < TOL", F(tol)},
    {.name = "max-cycles", .type = HX_OPT_INT, .meta = "K", .lo = 1, .hi = 10000, .def = "50",
     .group = "solver", .what = "a number of V-cycles", .help = "give up after K V-cycles (exit 4)",
     F(max_cycles)},
    {.name = "grid", .type = HX_OPT_DIMS, .meta = "PXxPYxPZ", .lo = 1, .hi = 1 << 20,
     .def_text = "--size: the most cubic blocks for the rank count; --size-per-rank: the fewest neighbours a rank waits for, at most 4 ranks along an axis per rank along another (4 ranks: 4x1x1)",
     .group = "decomposition and exchange",
     .what = "the process grid", .help = "process grid, the same on every level; must multiply to the rank count",
     F(grid), .count_at = AT(grid_n)},
    {.name = "backend", .type = HX_OPT_CHOICE, .choices = backends, .def = "auto",
     .group = "decomposition and exchange",
     .help = "where the fields live and the kernels run: cpu (OpenMP loops) or cuda (one GPU per rank); auto: "
             "cuda when every rank sees a GPU",
     F(backend)},
    {.name = "transport", .type = HX_OPT_STRING, .meta = "NAME[,NAME...]|auto|all", .def = "auto",
     .group = "decomposition and exchange", .what = "transport names (see halox info)",
     .help = "communication model of every level's exchange; auto: the library's pick (halox info; on one node with "
             "a GPU per rank, ipc-put, whose exchanges replay from CUDA graphs; on the CPU, mpi); with several (or "
             "all: every transport of this build that sets up here), the same solves run over each in turn in this "
             "one job, and a table compares their exchange time per level (the gain over the first) and checks that "
             "the solutions are bit-identical",
     F(transport)},
    {.name = "schedule", .type = HX_OPT_CHOICE, .choices = schedules, .def = "cycle",
     .group = "decomposition and exchange",
     .help = "who drives an exchange: cycle (the host calls hx_exchange_run between the smoother's kernels; the "
             "only schedule of a solver written on the exchange API; fused and persistent are halox run's)",
     F(schedule)},
    {.name = "pattern", .type = HX_OPT_CHOICE, .choices = patterns, .def = "staged",
     .group = "decomposition and exchange",
     .help = "faces axis by axis with corners forwarded, or all 26 neighbours at once", F(pattern)},
    {.name = "graph", .type = HX_OPT_FLAG, .def = "on", .group = "decomposition and exchange",
     .help = "time F-cycles replayed from CUDA graphs: the first records each stretch of GPU work between two "
             "host waits (kernels and exchanges), later ones launch it whole; only on the GPU, with a transport "
             "whose exchanges replay (ipc-put, nccl: halox info) and a smoother that leaves u where it was after an "
             "F-cycle (gsrb; Chebyshev of even degree); elsewhere, or off, every operation is launched on its own; "
             "the report's graph field says which ran, and the timed F-cycles are checked bit for bit against "
             "step-by-step ones",
     F(graph)},
    {.name = "overlap", .type = HX_OPT_FLAG, .def = "off", .group = "decomposition and exchange",
     .help = "split a GSRB colour that waits for an exchange of u: the cells that read no ghost and that no "
             "message sends are smoothed while the halos travel, the rest after (levels where those are at least "
             "half the block); bit-identical either way",
     F(overlap)},
    {.name = "fuse-colours", .type = HX_OPT_CHOICE, .choices = mg_fuses, .def = "auto",
     .group = "decomposition and exchange",
     .help = "GSRB on the GPU: both colours of a sweep in one pass, out of place, reading the coefficients once "
             "a sweep instead of once a colour; on: every level with at least two ghost layers (not where "
             "--overlap splits a colour); auto: those of them whose block has at least 256^3 cells on this rank "
             "(below, a launch a colour was faster); off: a launch a colour; bit-identical either way",
     F(fuse_colours)},
    {.name = "repeat", .type = HX_OPT_INT, .meta = "R", .lo = 1, .hi = 100000, .def = "3",
     .group = "measurement and output", .what = "a number of timed solves",
     .help = "timed FMG solves per size after one warm-up solve; the figure of merit uses the median", F(repeat)},
    {.name = "format", .type = HX_OPT_CHOICE, .choices = formats, .def = "table", .group = "measurement and output",
     .help = "report format: table, csv (one row per solve size and level) or json (the same fields: run "
             "fields under config, one object per solve size with its levels)",
     F(format)},
};
#undef F
#undef AT

const hx_command mg_command = {
    .name = "mg",
    .synopsis = "mpirun -np N halox mg [options]",
    .about = "Geometric multigrid (HPGMG-FV style) for -lap(u) = f (or a Helmholtz form with variable "
             "coefficients) on the unit cube (or a box of cubic cells: --size NXxNYxNZ), cell-centred finite "
             "volumes, homogeneous Dirichlet boundaries, manufactured u = sin(pi x/Lx) sin(pi y/Ly) sin(pi z/Lz). "
             "One halox layout and exchange per level; CPU loops or CUDA kernels. Solves at the grid, its half and "
             "its quarter with V-cycles to --tol (residual reduction per cycle, error and observed order) and times "
             "full-multigrid F-cycles (DOF/s).",
    .opts = mg_options,
    .nopts = (int)(sizeof mg_options / sizeof mg_options[0]),
    .notes = "Exit codes: 0 success, 2 bad input (one line naming the fix), 3 run-time failure, 4 the V-cycles "
             "did not reach --tol or a cycle reduced the residual by less than 10x.",
};
