# scripted run: replayed by tests/data/runtime/fake-python from the .stdout/.stderr/.exit files beside this file
