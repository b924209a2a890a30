"""The nbgrader assignments made from the chapters (tools/make_assignments.py), graded as a course would.

First, quickly and in this process: every coding exercise is found, its
reference solution passes the book's self-check and the chapter's draft fails
it. Then nbgrader's own command line on a course directory:
``generate_assignment`` (solutions stripped), ``autograde`` of three
submissions per assignment, and ``generate_feedback``:

- the reference solution gets full marks;
- the release as handed out, nothing written, gets zero;
- the chapter's draft in place of the first exercise's solution (a typical
  mistake, and one the self-check names) loses exactly that exercise's
  points, and the check's whole message is in the student's feedback.

The assignments are split over two course directories processed side by side
(nbgrader's commands each start in about three seconds, and every submission
runs in its own kernel).
"""
import contextlib
import html
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import numpy as np
import pytest

import bmlib as bm

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import make_assignments  # noqa: E402

CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
EXERCISES = {chapter.stem: make_assignments.coding_exercises(chapter) for chapter in CHAPTERS}
STUDENTS = ("reference", "empty", "mistake")


def _check(exercise, code):
    """Run ``code`` (a student's cell) and the exercise's self-check on it: (accepted, printed message)."""
    namespace = {"np": np, "bm": bm}
    exec(code, namespace)  # noqa: S102 (the book's own solution and draft)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        accepted = getattr(bm, exercise.check)(namespace[exercise.function])
    return accepted, out.getvalue()


def test_every_coding_exercise_of_the_book_is_found():
    found = {label.label for exercises in EXERCISES.values() for label in exercises}
    # Every code cell of a chapter that calls a self-check on a function is an exercise of its assignment.
    calls = 0
    for chapter in CHAPTERS:
        for cell in nbformat.read(chapter, as_version=4).cells:
            if cell.cell_type == "code":
                calls += len(make_assignments.CHECK_CALL.findall(cell.source))
    assert len(found) == calls == 19


@pytest.mark.parametrize("exercise", [e for es in EXERCISES.values() for e in es], ids=lambda e: e.label)
def test_reference_solution_passes_and_draft_fails_the_check(exercise):
    accepted, message = _check(exercise, exercise.solution)
    assert accepted is True, message
    accepted, message = _check(exercise, exercise.draft)
    assert accepted is False
    assert message.strip(), "a rejected draft gets a message that says what is wrong"


def test_a_solution_block_without_the_function_is_refused(tmp_path):
    nb = nbformat.read(ROOT / "book" / "sampling.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "{solution} sampling-ex-2" in cell.source:
            cell.source = cell.source.replace("def my_heat_bath_update", "def renamed_update")
    broken = tmp_path / "sampling.ipynb"
    nbformat.write(nb, broken)
    with pytest.raises(ValueError, match=r"sampling.ipynb, exercise sampling-ex-2: the solution's code defines "
                                         r"no function 'my_heat_bath_update'"):
        make_assignments.coding_exercises(broken)


# --- nbgrader's command line ---------------------------------------------------------------------


def _nbgrader(course, *args):
    """Start ``nbgrader ARGS`` in ``course``. Its database migrations call the venv's ``alembic``, hence PATH."""
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    log = open(course / f"{args[0]}.log", "w")  # noqa: SIM115 (closed by _wait)
    return subprocess.Popen([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, stdout=log,
                            stderr=subprocess.STDOUT), log


def _wait(started):
    for (process, log), course in started:
        code = process.wait(timeout=600)
        log.close()
        assert code == 0, (course / Path(log.name).name).read_text()[-4000:]


def _submissions(course):
    """The three submissions of every released assignment, under ``course/submitted/<student>/``."""
    for release in sorted((course / "release").glob("*/*.ipynb")):
        exercises = {e.label: e for e in EXERCISES[release.parent.name]}
        for student in STUDENTS:
            nb = nbformat.read(release, as_version=4)
            solutions = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
            for k, cell in enumerate(solutions):
                exercise = exercises[cell.metadata["nbgrader"]["grade_id"]]
                if student == "reference" or (student == "mistake" and k > 0):
                    cell.source = exercise.solution
                elif student == "mistake":
                    cell.source = exercise.draft
            target = course / "submitted" / student / release.parent.name / release.name
            target.parent.mkdir(parents=True)
            nbformat.write(nb, target)


@pytest.fixture(scope="module")
def courses(tmp_path_factory):
    with_exercises = [c for c in CHAPTERS if EXERCISES[c.stem]]
    halves = [with_exercises[0::2], with_exercises[1::2]]
    dirs = []
    for k, chapters in enumerate(halves):
        course = tmp_path_factory.mktemp(f"course{k}")
        (course / "nbgrader_config.py").write_text('c = get_config()\nc.CourseDirectory.course_id = "bmlib"\n')
        make_assignments.write_assignments(course, chapters)
        dirs.append(course)
    _wait([(_nbgrader(c, "generate_assignment", "*", "--force"), c) for c in dirs])
    for course in dirs:
        _submissions(course)
    _wait([(_nbgrader(c, "autograde", "*", "--create"), c) for c in dirs])
    _wait([(_nbgrader(c, "generate_feedback", "*"), c) for c in dirs])
    return dirs


def _scores(course):
    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for assignment in gradebook.assignments:
            for student in STUDENTS:
                submission = gradebook.find_submission(assignment.name, student)
                scores[assignment.name, student] = (submission.score, submission.max_score)
    return scores


def _text(path):
    """The visible text of an HTML feedback page, whitespace collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", path.read_text())).split())


@pytest.mark.slow
def test_released_assignments_carry_no_solution(courses):
    for course in courses:
        for release in (course / "release").glob("*/*.ipynb"):
            cells = nbformat.read(release, as_version=4).cells
            text = "\n".join(c.source for c in cells)
            code = "\n".join(c.source for c in cells if c.cell_type == "code")
            assert "BEGIN SOLUTION" not in text
            assert code.count("raise NotImplementedError()") == len(EXERCISES[release.parent.name])
            exercises = EXERCISES[release.parent.name]
            # What the assignment shows on purpose: the exercises' texts and the chapter's drafts.
            meant = {line.strip() for e in exercises for line in (e.draft + "\n" + e.prompt).splitlines()}
            shown = {line.strip() for line in text.splitlines()}
            for exercise in exercises:
                own = {line.strip() for line in exercise.solution.splitlines()} - meant
                assert own - {""} and not own & shown - {""}, f"{release.name} shows {sorted(own & shown)}"


@pytest.mark.slow
def test_autograde_gives_full_zero_and_partial_marks(courses):
    scores = {}
    for course in courses:
        scores.update(_scores(course))
    graded = {name for name, _ in scores}
    assert graded == {c.stem for c in CHAPTERS if EXERCISES[c.stem]}
    for name in graded:
        points = make_assignments.POINTS
        total = points * len(EXERCISES[name])
        assert scores[name, "reference"] == (total, total), name
        assert scores[name, "empty"] == (0, total), name
        # The draft costs exactly the first exercise's points; the others stay right.
        assert scores[name, "mistake"] == (total - points, total), name


@pytest.mark.slow
def test_feedback_on_the_mistake_quotes_the_self_check(courses):
    for course in courses:
        for page in (course / "feedback" / "mistake").glob("*/*.html"):
            first = EXERCISES[page.parent.name][0]
            accepted, message = _check(first, first.draft)
            assert accepted is False
            assert " ".join(message.split()) in _text(page), page.name
