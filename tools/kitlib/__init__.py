"""kitlib — what tools/kit (kitcli) and tools/grade (grader) both need, stated once.

Python 3 standard library only, like tools/kit. Neither kitcli nor grader imports the other;
what both use lives here:

  catalogue  exercises.json read and its format_version checked, for every reader
  statuses   a graded student's statuses, best to worst
  text       text that came from a student, made safe to show
  packages   the Debian packages exercises.json's settings name: which are missing, installing
  isolation  what sandbox this machine allows: bubblewrap's namespaces, a uid change, or none

Each launcher (tools/kit, tools/grade, tools/record) puts tools/ on sys.path, so `import
kitlib` works from all of them.
"""
