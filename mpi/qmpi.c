/*
 * QMPI, MPICH's interface for stacking tools (MPICH 4.x, `QMPI_*` in
 * mpi.h). A tool registers its name and an init function before MPI_Init
 * (QMPI_Register_tool_name, usually from a library constructor); MPI_Init
 * starts the tools named in CANAL_QMPI_TOOL_LIST / MPIR_CVAR_QMPI_TOOL_LIST
 * ("a:b", in that order, ids 1, 2, ...), and each registers the MPI
 * functions it intercepts (QMPI_Register_function). A call of MPI_X then goes
 * to the first tool that intercepts X (the generated MPI_X, mpi/api/gen.py:
 * one predicted branch when no tool is active); a tool passes the call on
 * with QMPI_Get_function, the last one reaching the library's own entry
 * (mpi_qmpi_base, generated). PMPI_X never goes through the tools.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiimpl.h"
#include "mpi/api_impl.h"
#include "common/cvar.h"

enum { QMPI_MAX_TOOLS = 32 };

typedef struct {
    char name[QMPI_MAX_TOOL_NAME_LENGTH];
    void (*init)(int tool_id);
} qmpi_registered_t;

/* Registered (before MPI_Init, by name) and started tools (id 1..nstarted). */
static qmpi_registered_t registered[QMPI_MAX_TOOLS];
static int nregistered;
static mpi_qmpi_fn_t *functions[QMPI_MAX_TOOLS + 1]; /* [tool id][function id] */
static void *storage[QMPI_MAX_TOOLS + 2];
static int nstarted;
static int tool_of[QMPI_MAX_TOOLS + 1]; /* started tool id -> registered[] */
static __thread void *calling_address;
int mpi_qmpi_active;

static int qmpi_error(int errclass, const char *fn, const char *detail)
{
    return mpi_state == MPI_STATE_INITIALIZED ? mpi_err_raise(NULL, errclass, fn, "%s", detail)
                                              : errclass;
}

static int valid_tool(int id)
{
    return id >= 1 && id <= nstarted;
}

mpi_qmpi_fn_t mpi_qmpi_first(int fid, void *caller, QMPI_Context *context, int *tool_id)
{
    context->storage_stack = storage;
    calling_address = caller;
    for (int t = 1; t <= nstarted; t++)
        if (functions[t][fid] != NULL) {
            *tool_id = t;
            return functions[t][fid];
        }
    return NULL;
}

static void qmpi_stop(void)
{
    mpi_qmpi_active = 0;
    for (int t = 1; t <= nstarted; t++) {
        free(functions[t]);
        functions[t] = NULL;
    }
    nstarted = 0;
}

/* Start the listed tools. Early (from MPI_Init and MPI_Init_thread, before
 * the call itself, as MPICH does: tools then intercept MPI_Init too) a
 * problem is not raised: the tools are left unstarted, and MPI_Init's hook
 * (not early) meets the problem again and raises it. */
static int qmpi_start_tools(int early)
{
    const char *list = common_cvar_str("QMPI_TOOL_LIST");
    char *copy, *save = NULL;
    int err = MPI_SUCCESS;

    if (list == NULL || *list == '\0' || nstarted > 0)
        return MPI_SUCCESS;
    if ((copy = strdup(list)) == NULL)
        return early ? MPI_ERR_NO_MEM
                     : mpi_err_raise(NULL, MPI_ERR_NO_MEM, "MPI_Init",
                                     "no memory for the QMPI tool list");
    /* every name first, so that no tool starts when the list is wrong */
    for (char *name = strtok_r(copy, ":", &save); name != NULL; name = strtok_r(NULL, ":", &save)) {
        int i = 0;
        while (i < nregistered && strcmp(registered[i].name, name) != 0)
            i++;
        if (i == nregistered) {
            err = early ? MPI_ERR_OTHER
                        : mpi_err_raise(NULL, MPI_ERR_OTHER, "MPI_Init",
                                        "QMPI tool '%s' of the tool list (CANAL_QMPI_TOOL_LIST) "
                                        "did not register itself with QMPI_Register_tool_name",
                                        name);
            goto out;
        }
        if (nstarted == QMPI_MAX_TOOLS) {
            err = early ? MPI_ERR_OTHER
                        : mpi_err_raise(NULL, MPI_ERR_OTHER, "MPI_Init",
                                        "more than %d QMPI tools in the tool list",
                                        QMPI_MAX_TOOLS);
            goto out;
        }
        functions[nstarted + 1] = calloc(MPI_LAST_FUNC_T, sizeof(mpi_qmpi_fn_t));
        if (functions[nstarted + 1] == NULL) {
            err = early ? MPI_ERR_NO_MEM
                        : mpi_err_raise(NULL, MPI_ERR_NO_MEM, "MPI_Init",
                                        "no memory for QMPI tool '%s'", name);
            goto out;
        }
        tool_of[++nstarted] = i;
    }
    for (int t = 1; t <= nstarted; t++)
        registered[tool_of[t]].init(t);
out:
    if (err != MPI_SUCCESS)
        qmpi_stop();
    free(copy);
    return err;
}

void mpi_qmpi_prestart(void)
{
    if (mpi_state == MPI_STATE_PRE_INIT && nstarted == 0)
        (void)qmpi_start_tools(1);
}

/* MPI_Init's hook: start the tools unless MPI_Init started them already. */
static int qmpi_start(void)
{
    return qmpi_start_tools(0);
}

__attribute__((constructor)) static void qmpi_module_register(void)
{
    mpi_register_hook(qmpi_start, qmpi_stop);
}

/* ---------------------------------------------------------------- QMPI functions */
int qmpi_register_tool_name_impl(const char *tool_name, void (*init_function_ptr)(int tool_id),
                                 const char *fn)
{
    if (tool_name == NULL || init_function_ptr == NULL)
        return qmpi_error(MPI_ERR_ARG, fn, "tool_name and init_function_ptr must not be NULL");
    if (strlen(tool_name) >= QMPI_MAX_TOOL_NAME_LENGTH)
        return qmpi_error(MPI_ERR_ARG, fn, "tool_name is longer than QMPI_MAX_TOOL_NAME_LENGTH");
    if (nregistered == QMPI_MAX_TOOLS)
        return qmpi_error(MPI_ERR_OTHER, fn, "too many QMPI tools registered");
    strcpy(registered[nregistered].name, tool_name);
    registered[nregistered].init = init_function_ptr;
    nregistered++;
    return MPI_SUCCESS;
}

int qmpi_register_tool_storage_impl(int tool_id, void *tool_storage, const char *fn)
{
    if (!valid_tool(tool_id))
        return qmpi_error(MPI_ERR_ARG, fn, "tool_id is not the id of a started QMPI tool");
    storage[tool_id] = tool_storage;
    return MPI_SUCCESS;
}

int qmpi_register_function_impl(int calling_tool_id, enum QMPI_Functions_enum function_enum,
                                void (*function_ptr)(void), const char *fn)
{
    if (!valid_tool(calling_tool_id))
        return qmpi_error(MPI_ERR_ARG, fn, "calling_tool_id is not the id of a started QMPI tool");
    if ((int)function_enum < 0 || (int)function_enum >= MPI_LAST_FUNC_T)
        return qmpi_error(MPI_ERR_ARG, fn, "function_enum is not a QMPI function identifier");
    functions[calling_tool_id][function_enum] = function_ptr;
    if (function_ptr != NULL)
        mpi_qmpi_active = 1;
    return MPI_SUCCESS;
}

int qmpi_get_function_impl(int calling_tool_id, enum QMPI_Functions_enum function_enum,
                           void (**function_ptr)(void), int *next_tool_id, const char *fn)
{
    if (calling_tool_id < 0 || calling_tool_id > nstarted)
        return qmpi_error(MPI_ERR_ARG, fn, "calling_tool_id is not the id of a started QMPI tool");
    if ((int)function_enum < 0 || (int)function_enum >= MPI_LAST_FUNC_T || function_ptr == NULL)
        return qmpi_error(MPI_ERR_ARG, fn, "function_enum or function_ptr is invalid");
    for (int t = calling_tool_id + 1; t <= nstarted; t++)
        if (functions[t][function_enum] != NULL) {
            *function_ptr = functions[t][function_enum];
            *next_tool_id = t;
            return MPI_SUCCESS;
        }
    /* The library itself; a function QMPI cannot intercept has none. */
    if (mpi_qmpi_base[function_enum] == NULL)
        return qmpi_error(MPI_ERR_UNSUPPORTED_OPERATION, fn,
                          "this MPI function cannot be intercepted through QMPI in Canal");
    *function_ptr = mpi_qmpi_base[function_enum];
    *next_tool_id = nstarted + 1;
    return MPI_SUCCESS;
}

int qmpi_get_tool_storage_impl(QMPI_Context context, int tool_id, void **storage_out,
                               const char *fn)
{
    if (!valid_tool(tool_id) || context.storage_stack == NULL || storage_out == NULL)
        return qmpi_error(MPI_ERR_ARG, fn, "tool_id, context or storage is invalid");
    *storage_out = context.storage_stack[tool_id];
    return MPI_SUCCESS;
}

int qmpi_get_calling_address_impl(QMPI_Context context, void **address, const char *fn)
{
    (void)context;
    if (address == NULL)
        return qmpi_error(MPI_ERR_ARG, fn, "address is NULL");
    *address = calling_address;
    return MPI_SUCCESS;
}
