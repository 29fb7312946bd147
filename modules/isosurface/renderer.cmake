# Draw pass for iso-surfaces (SurfaceRenderer). Its own target so the
# isosurface core does not depend on graphics pipelines; included once from
# modules/isosurface/CMakeLists.txt.
add_library(pyramarch_isosurface_renderer STATIC ${CMAKE_CURRENT_LIST_DIR}/src/surface_renderer.cpp)
add_library(pyramarch::isosurface_renderer ALIAS pyramarch_isosurface_renderer)
set_target_properties(pyramarch_isosurface_renderer PROPERTIES EXPORT_NAME isosurface_renderer)
target_include_directories(pyramarch_isosurface_renderer PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(pyramarch_isosurface_renderer PUBLIC pyramarch::engine PRIVATE $<BUILD_INTERFACE:pyramarch_warnings>)
pyramarch_add_shaders(pyramarch_isosurface_renderer
  ${PROJECT_SOURCE_DIR}/shaders/isosurface/surface.vert
  ${PROJECT_SOURCE_DIR}/shaders/isosurface/surface.frag)
install(TARGETS pyramarch_isosurface_renderer EXPORT pyramarchTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
