/* The module's private copy of volk: every global is renamed to pyramarch_*
 * (generated header), so it cannot collide with a host's loader or volk. */
#include "pyramarch_volk_rename.h"
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <volk.c>
