// What a user GLSL field's snippet may read (iso_time, iso_params[0..1]) and
// the field() it defines, set from the push constants by
// isoBeginUserFrame(). field_user.cpp wraps the host's snippet around it at
// creation: for the field passes, and with fused evaluation
// (FieldEvaluation::Fused) for classify and the extraction passes
// themselves (ISO_USER_FIELD), which then read no field buffer. Needs `grid`
// and `pc` declared by the includer.
#ifndef ISO_USER_FIELD_GLSL
#define ISO_USER_FIELD_GLSL

float iso_time;
vec4 iso_params[2];
float field(vec3 p);

void isoBeginUserFrame() {
    iso_time = pc.time;
    iso_params[0] = pc.user0;
    iso_params[1] = pc.user1;
}

// The field at sample s, as the field passes store it (the same position
// bits); NaN counts as -infinity, as sanitize() makes of a stored NaN.
float isoUserSample(uvec3 s) { return sanitize(field(isoSamplePosition(grid, s))); }

#endif
