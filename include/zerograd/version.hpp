// zerograd/version.hpp: the library's version, as numbers a program can test:
// `#if ZG_VERSION_MAJOR == 0 && ZG_VERSION_MINOR >= 1`. meson.build checks that they match the
// project's version.
#pragma once

#define ZG_VERSION_MAJOR 0
#define ZG_VERSION_MINOR 1
#define ZG_VERSION_PATCH 0
