"""tools/grader: the instructor's grader behind tools/grade (README.md here)."""
