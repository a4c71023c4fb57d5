"""RoPE code in the shapes real libraries give it, one module per pairing of producer and apply function
(each module's companions are found by looking in the module itself), each correct or with one real bug."""
