/*
 * mpio.h -- the MPI-IO header of ROMIO-based libraries such as MPICH.
 *
 * Canal's mpi.h already declares all of chapter 14 (I/O) with MPICH's
 * values; this file exists so that programs written for ROMIO that include
 * <mpio.h> directly still compile.
 */
#ifndef CANAL_MPIO_H_INCLUDED
#define CANAL_MPIO_H_INCLUDED
#include "mpi.h"
#endif
