/* launch.c: not written yet */
