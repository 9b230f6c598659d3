# SPDX-License-Identifier: Apache-2.0
# Debian packages with CPack (`cpack -G DEB` in the build folder; docs/packaging.md):
#
#   libclops0     the shared library (runtime component)
#   libclops-dev  headers, the static library, the .so link, pkg-config and
#                 CMake package files (dev component)
#   clops-tools   the `clops` program (linked statically against clops), its
#                 man page clops(1) and bash completion (tools component)
#
# Library dependencies come from dpkg-shlibdeps (exact versions of the
# Debian 12 libraries the binaries link); what the ELF files cannot say is
# listed here: an OpenCL driver (POCL) is recommended, the -dev package
# needs the headers and libraries of its static link and pkg-config file.
# tools/check-packages.sh builds and installs them and compiles the README
# example against the installed package.

# --- the man page and bash completion (tools component) -------------------
find_program(CLOPS_PYTHON3_EXE python3)
if(CLOPS_BUILD_TOOLS AND CLOPS_PYTHON3_EXE)
  add_custom_command(
    OUTPUT ${PROJECT_BINARY_DIR}/clops.1
    COMMAND ${CLOPS_PYTHON3_EXE} ${PROJECT_SOURCE_DIR}/tools/md2man.py
            ${PROJECT_SOURCE_DIR}/docs/cli.md ${PROJECT_BINARY_DIR}/clops.1 ${PROJECT_VERSION}
    DEPENDS ${PROJECT_SOURCE_DIR}/docs/cli.md ${PROJECT_SOURCE_DIR}/tools/md2man.py
    COMMENT "Generating the clops(1) man page from docs/cli.md")
  add_custom_target(clops-man ALL DEPENDS ${PROJECT_BINARY_DIR}/clops.1)
  install(FILES ${PROJECT_BINARY_DIR}/clops.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
          COMPONENT tools)
elseif(CLOPS_BUILD_TOOLS)
  message(WARNING "python3 not found: the clops(1) man page is not built")
endif()
if(CLOPS_BUILD_TOOLS)
  install(FILES tools/completion/clops.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
          RENAME clops COMPONENT tools)
endif()

# Debian's copyright file of each package (the licence text).
foreach(comp_pkg runtime:libclops0 dev:libclops-dev tools:clops-tools)
  string(REPLACE ":" ";" cp ${comp_pkg})
  list(GET cp 0 comp)
  list(GET cp 1 pkg)
  install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${pkg} RENAME copyright
          COMPONENT ${comp})
endforeach()

# --- CPack -------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME clops)
set(CPACK_PACKAGE_VENDOR "clops")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
# The Maintainer field dpkg requires; a placeholder until the project has an address.
set(CPACK_PACKAGE_CONTACT "clops maintainers <clops@invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev tools)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libclops0)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "${PROJECT_DESCRIPTION} (shared library)\n clops runs PyTorch-compatible tensor operators on any OpenCL device,\n with a CPU reference device, runtime kernel compilation and CLBlast for GEMM.")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libclops-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "${PROJECT_DESCRIPTION} (development files)\n Headers (clops/*.h; clops/opencl.h includes CL/cl.h), the static library,\n the pkg-config file clops.pc and the CMake package (find_package(clops)).")
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libclops0 (= ${PROJECT_VERSION}-1), ocl-icd-opencl-dev | opencl-dev, opencl-c-headers, libclblast-dev, libxxhash-dev, pkgconf | pkg-config")
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME clops-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION science)
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
    "${PROJECT_DESCRIPTION} (command-line program)\n clops checks, benchmarks and compares every operator on every OpenCL device,\n inspects devices and the kernel cache, and runs one operator on .npy files.")
set(CPACK_DEBIAN_TOOLS_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd, bash-completion")

include(CPack)
