# The catalogue's index, generated from the card files themselves: every header in
# include/proxgen/catalogue/ops/ and include/proxgen/catalogue/penalties/ is a card whose struct
# is named after its file (ops/conv.hpp defines catalogue::ops::conv). Adding a card is adding its
# file: the glob re-runs at build time and these sources are written again.
#   PROXGEN_CATALOGUE_SOURCES   the generated sources to compile into the library
#   PROXGEN_GENERATED_INCLUDE   the folder holding proxgen/catalogue/all.hpp (a public include dir)
file(GLOB proxgen_op_card_files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/include/proxgen/catalogue/ops/*.hpp)
file(GLOB proxgen_penalty_card_files CONFIGURE_DEPENDS
     ${CMAKE_CURRENT_SOURCE_DIR}/include/proxgen/catalogue/penalties/*.hpp)
list(SORT proxgen_op_card_files)
list(SORT proxgen_penalty_card_files)

set(PROXGEN_CARD_INCLUDES "")
set(PROXGEN_OP_CARDS "")
set(PROXGEN_PENALTY_CARDS "")
set(PROXGEN_OP_LOWERINGS "")
set(PROXGEN_PENALTY_LOWERINGS "")
foreach(kind op penalty)
  if(kind STREQUAL "op")
    set(files ${proxgen_op_card_files})
    set(ns ops)
  else()
    set(files ${proxgen_penalty_card_files})
    set(ns penalties)
  endif()
  foreach(f ${files})
    get_filename_component(stem ${f} NAME_WE)
    string(APPEND PROXGEN_CARD_INCLUDES "#include \"proxgen/catalogue/${ns}/${stem}.hpp\"\n")
    if(kind STREQUAL "op")
      string(APPEND PROXGEN_OP_CARDS "    &card<ops::${stem}>(),\n")
      string(APPEND PROXGEN_OP_LOWERINGS "        {catalogue::ops::${stem}::name, of<OpLoweringOf<catalogue::ops::${stem}>>()},\n")
    else()
      string(APPEND PROXGEN_PENALTY_CARDS "    &card<penalties::${stem}>(),\n")
      string(APPEND PROXGEN_PENALTY_LOWERINGS "        {catalogue::penalties::${stem}::name, of<PenaltyLoweringOf<catalogue::penalties::${stem}>>()},\n")
    endif()
  endforeach()
endforeach()

set(PROXGEN_GENERATED_INCLUDE ${CMAKE_CURRENT_BINARY_DIR}/generated/include)
configure_file(${CMAKE_CURRENT_LIST_DIR}/all.hpp.in ${PROXGEN_GENERATED_INCLUDE}/proxgen/catalogue/all.hpp @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/index.cpp.in ${CMAKE_CURRENT_BINARY_DIR}/generated/catalogue_index.cpp @ONLY)
configure_file(${CMAKE_CURRENT_LIST_DIR}/lowering_index.cpp.in ${CMAKE_CURRENT_BINARY_DIR}/generated/lowering_index.cpp @ONLY)
set(PROXGEN_CATALOGUE_SOURCES
  ${CMAKE_CURRENT_BINARY_DIR}/generated/catalogue_index.cpp
  ${CMAKE_CURRENT_BINARY_DIR}/generated/lowering_index.cpp)
