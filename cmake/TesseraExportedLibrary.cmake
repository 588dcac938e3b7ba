# A shared library that exports only what its version script lists: hidden
# visibility, the static layers' symbols kept inside (--exclude-libs), and
# every symbol resolved at link time (sanitizer runtimes come from the
# executable, so sanitized and fuzzing builds skip that check).
function(tessera_exported_library target map)
  set_target_properties(${target} PROPERTIES
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${map})
  target_link_options(${target} PRIVATE -Wl,--version-script=${map} -Wl,--exclude-libs,ALL)
  if(TESSERA_SANITIZE STREQUAL "" AND NOT TESSERA_FUZZ)
    target_link_options(${target} PRIVATE -Wl,--no-undefined)
  endif()
endfunction()
