/* Aeron's port manager header (aeron_port_manager.h, installed with the driver's headers):
 * struct aeron_port_manager_stct and its function types, defined in aeronrs.h, for port
 * managers written against Aeron's driver. */
#ifndef AERON_PORT_MANAGER_H
#define AERON_PORT_MANAGER_H

#include "aeronmd.h"

#endif
