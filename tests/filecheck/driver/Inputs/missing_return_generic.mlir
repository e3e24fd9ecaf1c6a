"cuda_tile.module"() <{sym_name = "m"}> ({
  "cuda_tile.entry"() <{sym_name = "k", function_type = () -> ()}> ({
  ^bb0:
    %0 = "cuda_tile.constant"() <{value = dense<1> : tensor<i32>}> : () -> !cuda_tile.tile<i32>
  }) : () -> ()
}) : () -> ()
