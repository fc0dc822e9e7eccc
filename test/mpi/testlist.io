# MPI-IO (issue 13). See runtests.sh.
io_basic 1
io_basic 3
io_view 1
io_view 2
io_view 4
io_view 7
io_shared 1
io_shared 3
io_shared 8
io_nonblock 1
io_nonblock 2
io_nonblock 5
io_misc 1
io_misc 4
io_edges 1
io_edges 3
io_edges 4
io_open_errh 1
io_open_errh 3
io_view_errh 1
io_view_errh 3
io_errh_paths 1
io_errh_paths 3
# a collective io/ runs internally fails (a mismatch the checking mode finds): the file's handler, once
io_coll_errh 2 timeout=60 env=CANAL_COLL_CHECK=1
io_coll_errh 3 timeout=60 env=CANAL_COLL_CHECK=1
