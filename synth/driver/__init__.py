"""`synth cc`: a drop-in for the C compiler that builds C programs with their loop kernels raised (synth.driver.cc)."""
