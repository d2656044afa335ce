# The README's C++ example is this folder's KokkosSpGEMM_FromYourArrays.cpp, verbatim in a ```c++ block.
file(READ ${README} readme)
file(READ ${EXAMPLE} example)
string(FIND "${readme}" "```c++\n${example}```" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md does not show ${EXAMPLE} verbatim in a ```c++ block")
endif()
message(STATUS "the README shows the example")
