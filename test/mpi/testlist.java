# Java programs written against Open MPI's Java API (package mpi), compiled
# with mpijavac and run through mpiexec (test/mpi/java/, bindings/java).
# A SKIP without a JDK or a Canal built without the Java binding.
JRing 1 timeout=180
JRing 4 timeout=240
JUserOp 3 timeout=240
JNonblocking 2 timeout=240
JNonblocking 4 timeout=300
JCart 4 timeout=240
JErrors 2 timeout=240
JLargeArray 2 timeout=240
JLargeArray 2 timeout=240 env=CANAL_JAVA_SPIN_US=0
JCollectives 1 timeout=180
JCollectives 4 timeout=300
JDatatypes 3 timeout=240
JComm 4 timeout=240
JWinFile 2 timeout=240
# collections (objects moving) while arrays and direct buffers are in use
JGcStress 2 timeout=400 args=40
JGcStress 4 timeout=600 args=24
JGcStress 2 timeout=400 args=24 env=CANAL_JAVA_SPIN_US=0 env=CANAL_JAVA_ZEROCOPY_MAX=0
JGcStress 2 timeout=400 args=24 env=CANAL_CHANNEL=sock
JGcStress 4 timeout=600 args=16 env=CANAL_SHM_CMA=no
JP2PModes 2 timeout=240
JP2PModes 3 timeout=240
JTopoInter 4 timeout=240
JTopoInter 1 timeout=180
JWinFile 4 timeout=300
JThreads 2 timeout=300
JThreads 4 timeout=400
