"""Libraries' own threads, asked for none before they load (the command line does this first).

numpy's BLAS and pyarrow's allocator start threads of their own at import; a process with more
than one thread must not fork, so the engine could not read and write large sheets on both
cores (:mod:`gputco.workbook.recalc.read.forked` counts the operating system's threads). Each
variable is set only where the user has not set it.
"""

import os

#: what each library reads, and the value that asks it for no thread of its own
NO_LIBRARY_THREADS = {
    "OPENBLAS_NUM_THREADS": "1",  # numpy's OpenBLAS thread pool
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "JE_ARROW_MALLOC_CONF": "background_thread:false",  # pyarrow's jemalloc background thread
}


def single_threaded_libraries() -> None:
    for name, value in NO_LIBRARY_THREADS.items():
        os.environ.setdefault(name, value)
