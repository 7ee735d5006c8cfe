#ifndef SBX_LOOKUP_H
#define SBX_LOOKUP_H
#endif
