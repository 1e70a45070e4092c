// collude_1_publisher, collude_2_reader: the IPC headers of collude.hpp.

#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
