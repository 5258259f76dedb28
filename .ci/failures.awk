# Reads a `bun test` log and prints each failed test with the lines the log showed between it and
# the test before (its error and stack, and what it logged), so the end of a long log says why.
/^[^ ].*\.test\.tsx?:$/ { file = $0; n = 0; summary = 0; next }
/^[0-9]+ tests? failed:$/ { summary = 1; next }
/^\((pass|skip|todo)\) / { n = 0; next }
/^\(fail\) / {
  if (summary) next
  print ""
  print file
  for (i = (n > 80 ? n - 80 : 0); i < n; i++) print buf[i]
  print
  n = 0
  next
}
{ buf[n++] = $0 }
