// vtksoft: the software VA-API driver arrives with issue 3.
