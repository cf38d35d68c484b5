/* The lab's structs described once (fields.c): a lab of the registry (`lab list` and each
 * run), its result and measurements, and the device the labs ran on (docs/json.md, lab). */
#ifndef CUDOCTOR_LAB_FIELDS_H
#define CUDOCTOR_LAB_FIELDS_H

#include "util/field.h"

/* struct lab: FIELD_BRIEF is `lab list`'s table (lab, concept, measures) */
extern const struct field_table lab_field_table;
enum { LAB_F_NAME, LAB_F_CONCEPT, LAB_F_MEASURES, LAB_F_CLAIM, LAB_F_LESSON };
/* struct lab_result: the set-up, the verdict's name and the note (the decided numbers are the
 * run's: a failed run says its error there) */
extern const struct field_table lab_result_field_table;
enum { LAB_R_SETUP, LAB_R_VERDICT, LAB_R_NOTE };
/* struct lab_meas: a row of the measurements table */
extern const struct field_table lab_meas_field_table;
/* struct lab_dev: the device object's facts of the driver (its text a line of its own) */
extern const struct field_table lab_dev_field_table;

#endif
