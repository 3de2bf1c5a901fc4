# Sourced by the mpirun tests with KALAH_BINARY WORK_DIR as $1 $2: sets kalah and work (a fresh
# directory, removed on exit), lets Open MPI run as root, and defines mpi P ARGS...: kalah ARGS...
# on P processes of this machine, passing the variables named in MPI_EXPORT (space-separated).
set -euo pipefail
kalah=$1
work=$2
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT

if [[ $(id -u) -eq 0 ]]; then  # Open MPI refuses root without these
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpi() {
  local p=$1 exports=()
  shift
  for v in ${MPI_EXPORT:-}; do exports+=(-x "$v"); done
  mpirun --oversubscribe --bind-to none -np "$p" "${exports[@]}" "$kalah" "$@"
}
